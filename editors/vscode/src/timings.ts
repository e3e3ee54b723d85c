// Timings of the extension host's own work on pending changes, for the
// benchmark (bench/pending_host.js through catbuddy.pendingTimings): wall
// and CPU time of each sample, by kind. No "vscode" import: unit-tested.

/** Sample is one measured piece of work: wall and CPU milliseconds, and how many hunks it handled. */
interface Sample { wall: number; cpu: number; hunks?: number }

/** Started is what start() returns, for stop(). */
export interface Started { wall: number; cpu: NodeJS.CpuUsage }

/** TimingSummary is one kind's medians. */
export interface TimingSummary { count: number; medianMs: number; p90Ms: number; cpuMedianMs: number; hunks?: number }

/** MAX_SAMPLES bounds each kind's samples: the oldest go first. */
const MAX_SAMPLES = 5000;

/** median of sorted values (0 for none). */
export function quantile(values: number[], q: number): number {
  if (values.length === 0) {
    return 0;
  }
  const v = [...values].sort((a, b) => a - b);
  return v[Math.min(v.length - 1, Math.floor(q * v.length))];
}

/** Timings collects samples by kind ("update", "codeLens", "keystroke"). */
export class Timings {
  private readonly samples = new Map<string, Sample[]>();

  start(): Started {
    return { wall: performance.now(), cpu: process.cpuUsage() };
  }

  stop(kind: string, t: Started, hunks?: number): void {
    const cpu = process.cpuUsage(t.cpu);
    let list = this.samples.get(kind);
    if (!list) {
      list = [];
      this.samples.set(kind, list);
    }
    list.push({ wall: performance.now() - t.wall, cpu: (cpu.user + cpu.system) / 1000, hunks });
    if (list.length > MAX_SAMPLES) {
      list.shift();
    }
  }

  reset(): void {
    this.samples.clear();
  }

  /** report gives each kind's medians (and the largest hunk count it handled). */
  report(): Record<string, TimingSummary> {
    const out: Record<string, TimingSummary> = {};
    for (const [kind, list] of this.samples) {
      const wall = list.map((s) => s.wall);
      const hunks = list.reduce<number | undefined>((m, s) => (s.hunks === undefined ? m : Math.max(m ?? 0, s.hunks)), undefined);
      out[kind] = {
        count: list.length,
        medianMs: round(quantile(wall, 0.5)),
        p90Ms: round(quantile(wall, 0.9)),
        cpuMedianMs: round(quantile(list.map((s) => s.cpu), 0.5)),
        ...(hunks === undefined ? {} : { hunks }),
      };
    }
    return out;
  }
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
