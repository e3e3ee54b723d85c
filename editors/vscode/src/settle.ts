// The settle rule for catbuddy/diagnostics (docs/PROTOCOL.md): after the
// agent's edit lands, language servers need a moment to publish the new
// diagnostics. An answer is ready when the document's diagnostics changed
// after its last change, or when the last change is older than a quiet
// period; it is never held longer than the cap. Pure, so it is unit-tested
// without VS Code; the Neovim plugin implements the same rule.

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
