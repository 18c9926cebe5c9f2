/** What `structrank pipeline` and `structrank demo` share: progress bars per step, the run and its printout. */
import { isQuiet, Progress } from '../progress.js';
import { ComponentUnavailable } from './components.js';
import type { PipelineConfig } from './config.js';
import { formatResultsTable, writeReport } from './report.js';
import { runPipeline, type PipelineResults, type RunPipelineOptions } from './run.js';

/**
 * A StepContext progress callback drawing one bar per label and total on stderr (`stream`:
 * elsewhere). A new total under the same label is a new phase (a CRF parser's trees counted,
 * then its steps), so it gets a new bar instead of counting against the old total.
 */
export function progressBars(
  stream?: NodeJS.WriteStream,
): (label: string, done: number, total: number, status?: string) => void {
  let current: { label: string; total: number; bar: Progress } | undefined;
  return (label, done, total, status) => {
    if (current?.label !== label || current.total !== total) {
      // A terminal bar left running would redraw over the next one.
      current?.bar.finish();
      current = { label, total, bar: new Progress({ label, total, stream }) };
    }
    current.bar.update(done, status);
    if (done >= total) {
      current.bar.finish(status);
      current = undefined;
    }
  };
}

/**
 * Runs the pipeline (its candidate steps on `executor` when given, e.g. a Redis queue),
 * prints the table (or, with `json`, the results as written to results.json) and writes
 * report.html; returns the results.
 */
export async function runAndReport(
  config: PipelineConfig,
  signal: AbortSignal,
  title: string,
  json = false,
  executor?: RunPipelineOptions['executor'],
): Promise<PipelineResults> {
  const results = await runPipeline(config, {
    signal,
    executor,
    log: (line) => {
      if (!isQuiet()) process.stderr.write(`${line}\n`);
    },
    progress: progressBars(),
  });
  const report = await writeReport(config.output, results, title);
  if (json) {
    console.log(
      JSON.stringify({ ...results, report }, (_k, v) => (typeof v === 'number' && !Number.isFinite(v) ? null : v)),
    );
    return results;
  }
  console.log(formatResultsTable(results));
  console.log(`\nreport: ${report}\nresults: ${config.output}/results.json`);
  return results;
}

/** One line for a component that is not part of this build. */
export function unavailableMessage(err: unknown): string | undefined {
  return err instanceof ComponentUnavailable
    ? `${err.step} is not available yet: ${err.component} (${err.why})`
    : undefined;
}
