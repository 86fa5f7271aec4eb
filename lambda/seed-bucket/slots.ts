/** Waits for room: `n` units of a bounded count (writes in flight, bytes in memory). */
export class Slots {
  private used = 0;
  private readonly waiting: Array<{ n: number; go: () => void }> = [];

  constructor(private readonly size: number) {}

  async take(n: number): Promise<void> {
    if (this.used + n <= this.size || this.used === 0) {
      this.used += n;
      return;
    }
    await new Promise<void>((go) => this.waiting.push({ n, go }));
  }

  give(n: number): void {
    this.used -= n;
    while (this.waiting.length > 0 && (this.used + this.waiting[0].n <= this.size || this.used === 0)) {
      const next = this.waiting.shift()!;
      this.used += next.n;
      next.go();
    }
  }
}
