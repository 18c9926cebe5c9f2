import { afterEach, describe, expect, it, vi } from 'vitest';
import { progressBars } from '../../lib/pipeline/cli.js';

/** A non-terminal stream that keeps what is written (plain progress lines). */
function logStream(): { stream: NodeJS.WriteStream; lines: () => string[] } {
  let text = '';
  const stream = { isTTY: false, write: (s: string) => ((text += s), true) } as unknown as NodeJS.WriteStream;
  return { stream, lines: () => text.split('\n').filter((l) => l !== '') };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('pipeline progress bars', () => {
  it('a new total under the same label starts a new bar (a CRF parser: trees, then steps)', () => {
    vi.useFakeTimers();
    const t0 = Date.now();
    const { stream, lines } = logStream();
    const bars = progressBars(stream);
    // The PCFG counts its 4,356 trees at once, then the CRF reports its 436 steps.
    bars('train CRF-CFG chart parser', 4356, 4356);
    vi.setSystemTime(t0 + 2000);
    bars('train CRF-CFG chart parser', 10, 436, 'loss 8.3');
    vi.setSystemTime(t0 + 4000);
    bars('train CRF-CFG chart parser', 436, 436, 'loss 1.2');
    expect(lines().length).toBeGreaterThan(0);
    expect(lines().every((l) => !l.includes('/4356'))).toBe(true);
    expect(lines().at(-1)).toContain('436/436');
    expect(lines().at(-1)).toContain('loss 1.2');
  });
});
