/**
 * Off a terminal, a long job prints a progress line at least every progressInterval() (30 s,
 * or STRUCTRANK_PROGRESS_INTERVAL_MS): when only fractions of a unit arrive, and when nothing
 * arrives at all (lib/progress.ts). Fake timers stand in for the clock.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Progress, PROGRESS_INTERVAL_MS, progressInterval, TrainProgressBar } from '../lib/progress.js';

function sink() {
  const lines: { at: number; text: string }[] = [];
  const stream = {
    isTTY: false,
    write: (s: string) => lines.push({ at: Date.now(), text: s }),
  } as unknown as NodeJS.WriteStream;
  return { stream, lines };
}

describe('plain progress lines at least every interval', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 0 });
    delete process.env.STRUCTRANK_PROGRESS_INTERVAL_MS;
  });
  afterEach(() => {
    vi.useRealTimers();
    delete process.env.STRUCTRANK_PROGRESS_INTERVAL_MS;
  });

  it('the interval is 30 s unless the environment sets it', () => {
    expect(progressInterval()).toBe(PROGRESS_INTERVAL_MS);
    expect(PROGRESS_INTERVAL_MS).toBe(30_000);
    process.env.STRUCTRANK_PROGRESS_INTERVAL_MS = '250';
    expect(progressInterval()).toBe(250);
    process.env.STRUCTRANK_PROGRESS_INTERVAL_MS = 'soon';
    expect(progressInterval()).toBe(30_000);
  });

  it('a pass of 10 epochs reporting only fractions of an epoch prints every 30 s, with done/total and a rate', () => {
    const { stream, lines } = sink();
    const p = new Progress({ label: 'train', total: 10, unit: 'epochs', stream });
    // 0.01 epoch per second: the first whole epoch after 100 s.
    for (let s = 1; s <= 95; s++) {
      vi.advanceTimersByTime(1000);
      p.update(s / 100);
    }
    expect(lines.map((l) => l.at)).toEqual([30_000, 60_000, 90_000]);
    expect(lines[0].text).toMatch(
      /^train {2}\[#?-+\] 0\.(29|30)\/10 {2}elapsed 30s {2}0\.010 epochs\/s {2}ETA 16m\d\ds\n$/,
    );
    p.finish();
  });

  it('with no event at all, the last state is printed again with the elapsed time; finish stops it', () => {
    const { stream, lines } = sink();
    const p = new Progress({ label: 'parse', total: 5000, unit: 'sentences', stream });
    vi.advanceTimersByTime(2000);
    p.update(40);
    vi.advanceTimersByTime(93_000);
    // The first whole sentence prints at once, then a line every 30 s without any event.
    expect(lines.map((l) => l.at)).toEqual([2000, 32_000, 62_000, 92_000]);
    expect(lines[3].text).toContain('40/5000  elapsed 1m32s');
    p.finish();
    const n = lines.length;
    vi.advanceTimersByTime(120_000);
    expect(lines.length).toBe(n);
  });

  it('STRUCTRANK_PROGRESS_INTERVAL_MS shortens the interval; whole units still print at once', () => {
    process.env.STRUCTRANK_PROGRESS_INTERVAL_MS = '5000';
    const { stream, lines } = sink();
    const p = new Progress({ label: 'tag', total: 1000, unit: 'MB', stream, logEvery: 60_000 });
    for (let s = 1; s <= 12; s++) {
      vi.advanceTimersByTime(1000);
      p.update(s * 0.5);
    }
    // The first whole MB at once (after the first second), then one every 5 s, not every 60 s.
    expect(lines.map((l) => l.at)).toEqual([2000, 7000, 12_000]);
    p.finish();
  });

  it('a trainer that switches phase (trees counted, then sentences of the passes) gets lines of the new phase', () => {
    process.env.STRUCTRANK_PROGRESS_INTERVAL_MS = '10000';
    const { stream, lines } = sink();
    const bar = new TrainProgressBar('train-parser', { lossName: 'objective', logAfter: 0, stream });
    bar.onProgress({ phase: 'tree', done: 800, total: 800, rate: 0 });
    for (let s = 1; s <= 25; s++) {
      vi.advanceTimersByTime(1000);
      bar.onProgress({ phase: 'sentence', done: 16 * s, total: 8000, rate: 16, loss: 12.5 });
    }
    bar.finish();
    const text = lines.map((l) => l.text);
    expect(text[0]).toMatch(/^train-parser {2}\[#{20}\] 800\/800 {2}elapsed 0s/);
    const sentences = lines.slice(1);
    expect(sentences.length).toBeGreaterThanOrEqual(3);
    for (const l of sentences)
      expect(l.text).toMatch(
        /^train-parser {2}\[#?-+\] \d+\/8000 {2}elapsed \d+s {2}16\.0 sentences\/s {2}ETA \dm\d\ds {2}objective 12\.5000\n$/,
      );
    for (let i = 1; i < sentences.length; i++)
      expect(sentences[i].at - sentences[i - 1].at).toBeLessThanOrEqual(10_000);
  });
});
