/** The step cache's keys hash the package version: a new version does not reuse an older one's steps. */
import { describe, expect, it, vi } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as PackageInfo from '../../lib/io/package-info.js';
import { tempDir, repoRoot } from '../helpers.js';

const version = vi.hoisted(() => ({ value: '1.0.0' }));
vi.mock('../../lib/io/package-info.js', () => ({ packageVersion: () => version.value }));

const { stepKey } = await import('../../lib/pipeline/step-cache.js');
const { packageVersion } = await vi.importActual<typeof PackageInfo>('../../lib/io/package-info.js');

describe('step keys and the package version', () => {
  it('reads the version from package.json', () => {
    const json = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string };
    expect(packageVersion()).toBe(json.version);
  });

  it('changes every key when the version changes', async () => {
    const tmp = tempDir();
    try {
      const input = tmp.file('in.txt', 'one');
      const before = await stepKey('parse', { k: 50 }, [input]);
      expect(await stepKey('parse', { k: 50 }, [input])).toBe(before);
      version.value = '1.1.0';
      expect(await stepKey('parse', { k: 50 }, [input])).not.toBe(before);
    } finally {
      tmp.cleanup();
    }
  });
});
