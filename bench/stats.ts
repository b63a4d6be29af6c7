/** Timing helpers for `npm run bench`: many runs, percentiles, no assertions (results are read). */
export interface Figure {
  readonly name: string;
  readonly runs: number;
  readonly p50_us: number;
  readonly p99_us: number;
  readonly per_second: number;
  /**
   * Where a load figure says it: CPU time per completed request, in µs, of the process that
   * served it and of the process that made the load (all their threads), and the share of one
   * core each used over the run. Which side ran out of CPU is read here, not guessed.
   */
  readonly cpu?: { readonly server_us: number; readonly client_us: number; readonly server_cores: number; readonly client_cores: number };
}

export async function measure(name: string, runs: number, once: () => unknown): Promise<Figure> {
  for (let i = 0; i < Math.min(50, runs); i++) await once(); // warm up
  const samples: number[] = [];
  const started = process.hrtime.bigint();
  for (let i = 0; i < runs; i++) {
    const t = process.hrtime.bigint();
    await once();
    samples.push(Number(process.hrtime.bigint() - t) / 1000);
  }
  const total = Number(process.hrtime.bigint() - started) / 1e9;
  return { name, runs, ...percentiles(samples), per_second: Math.round(runs / total) };
}

/** A figure from samples taken one at a time (long operations): per_second is 1 / mean. */
export function summarize(name: string, samples: number[]): Figure {
  const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
  return { name, runs: samples.length, ...percentiles(samples), per_second: Math.round(1e6 / mean) };
}

/** p50 and p99 of samples in microseconds (sorts them in place). */
export function percentiles(samples: number[]): { p50_us: number; p99_us: number } {
  samples.sort((a, b) => a - b);
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))] ?? 0;
  return { p50_us: round(at(0.5)), p99_us: round(at(0.99)) };
}

const round = (n: number) => Math.round(n * 10) / 10;

export function table(figures: readonly Figure[]): string {
  const width = Math.max(72, ...figures.map((f) => f.name.length));
  const rows = figures.map((f) => `${f.name.padEnd(width)} ${String(f.p50_us).padStart(10)} ${String(f.p99_us).padStart(10)} ${String(f.per_second).padStart(10)}`);
  return [`${'measure'.padEnd(width)} ${'p50 µs'.padStart(10)} ${'p99 µs'.padStart(10)} ${'per s'.padStart(10)}`, ...rows].join('\n');
}
