// The settle rule for catbuddy/diagnostics (docs/PROTOCOL.md): after the
// agent's edit lands, language servers need a moment to publish the new
// diagnostics. An answer is ready when the document's diagnostics changed
// after its last change, or when the last change is older than a quiet
// period; it is never held longer than the cap. Free of VS Code (the clock
// and the change times are passed in), so it is unit-tested under node; the
// Neovim plugin implements the same rule.

/** QUIET_MS is how long after a change without new diagnostics they count as settled. */
export const QUIET_MS = 750;
/** CAP_MS bounds how long one request waits. */
export const CAP_MS = 2000;

/**
 * settleWait returns how many ms to wait before answering (0: answer now).
 * Times are ms timestamps; lastChange and lastDiagnostics are 0 when unknown.
 * A change of the diagnostics before that wait ends makes them settled.
 */
export function settleWait(now: number, asked: number, lastChange: number, lastDiagnostics: number): number {
  if (lastDiagnostics > lastChange || now - lastChange >= QUIET_MS || now - asked >= CAP_MS) {
    return 0;
  }
  return Math.max(0, Math.min(lastChange + QUIET_MS, asked + CAP_MS) - now);
}

/** SettleTimes are a document's last change and last diagnostics change (ms, 0: unknown). */
export interface SettleTimes {
  lastChange: number;
  lastDiagnostics: number;
}

/** SettleClock is what settle needs of the world, so that tests can drive it. */
export interface SettleClock {
  now(): number;
  /** wait resolves after ms, or sooner when some document's diagnostics change. */
  wait(ms: number): Promise<void>;
}

/**
 * settle resolves once a document's diagnostics are settled by the rule
 * above: at once when they changed after the last change (or that change
 * is old), else when they next change or the quiet period ends, and never
 * later than CAP_MS after asked. It returns the ms it waited.
 */
export async function settle(asked: number, times: () => SettleTimes, clock: SettleClock): Promise<number> {
  for (;;) {
    const t = times();
    const wait = settleWait(clock.now(), asked, t.lastChange, t.lastDiagnostics);
    if (wait === 0) {
      return clock.now() - asked;
    }
    await clock.wait(wait);
  }
}
