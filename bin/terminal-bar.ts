/** A progress bar on standard error, for a terminal: started by its first update, stopped once. */
export async function terminalBar(format: string): Promise<{ update: (value: number, total: number, payload: object) => void; stop: () => void }> {
  const cliProgress = await import('cli-progress');
  const bar = new cliProgress.SingleBar({ format, stream: process.stderr, hideCursor: true }, cliProgress.Presets.shades_classic);
  let started = false;
  return {
    update: (value, total, payload) => {
      if (!started) { bar.start(total, value, payload); started = true; }
      bar.setTotal(total);
      bar.update(value, payload);
    },
    stop: () => { if (started) { bar.stop(); started = false; } },
  };
}
