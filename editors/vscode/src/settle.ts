// The settle rule for catbuddy/diagnostics (docs/PROTOCOL.md): after the
// agent's edit lands, language servers need a moment to publish the new
// diagnostics. An answer is ready when the document's diagnostics changed
// after its last change, or when the last change is older than a quiet
// period; it is never held longer than the cap. The two durations are the
// server's: each request carries them (params.settle). Free of VS Code (the
// clock and the change times are passed in), so it is unit-tested under
// node; the Neovim plugin implements the same rule.

/** SettleRule is the params.settle of a catbuddy/diagnostics request (ms). */
export interface SettleRule {
  /** quietMs is how long after a change without new diagnostics they count as settled. */
  quietMs: number;
  /** capMs bounds how long one request waits. */
  capMs: number;
}

/** OLD_SERVER_RULE is what servers sent before the rule travelled with the request. */
export const OLD_SERVER_RULE: Readonly<SettleRule> = { quietMs: 750, capMs: 2000 };

/**
 * settleRule reads params.settle of a request: the server's rule, or
 * OLD_SERVER_RULE when it sent none (an older server) or a malformed one.
 */
export function settleRule(params: unknown): SettleRule {
  const s = (params as { settle?: { quietMs?: unknown; capMs?: unknown } } | undefined)?.settle;
  const ok = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v > 0;
  if (s && ok(s.quietMs) && ok(s.capMs)) {
    return { quietMs: s.quietMs, capMs: s.capMs };
  }
  return { ...OLD_SERVER_RULE };
}

/**
 * settleWait returns how many ms to wait before answering (0: answer now).
 * Times are ms timestamps; lastChange and lastDiagnostics are 0 when unknown.
 * A change of the diagnostics before that wait ends makes them settled.
 */
export function settleWait(now: number, asked: number, lastChange: number, lastDiagnostics: number, rule: SettleRule): number {
  if (lastDiagnostics > lastChange || now - lastChange >= rule.quietMs || now - asked >= rule.capMs) {
    return 0;
  }
  return Math.max(0, Math.min(lastChange + rule.quietMs, asked + rule.capMs) - now);
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
 * later than rule.capMs after asked. It returns the ms it waited.
 */
export async function settle(asked: number, times: () => SettleTimes, clock: SettleClock, rule: SettleRule): Promise<number> {
  for (;;) {
    const t = times();
    const wait = settleWait(clock.now(), asked, t.lastChange, t.lastDiagnostics, rule);
    if (wait === 0) {
      return clock.now() - asked;
    }
    await clock.wait(wait);
  }
}
