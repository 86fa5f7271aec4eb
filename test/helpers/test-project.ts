/**
 * jest.config.js keeps the suites that start real parts (efs-sim, moto's server) out of the unit
 * project, which a developer runs alone for speed, without root or the Python venv. The helpers
 * that start them call this when loaded, so that a suite that needs them and is not listed under
 * INTEGRATION fails at once, saying where to list it.
 */
export function refuseInUnitProject(part: string): void {
  if ((globalThis as { testProject?: string }).testProject === 'unit') {
    throw new Error(`${part} is for suites of jest's integration project, not unit: list this suite under INTEGRATION in jest.config.js`);
  }
}
