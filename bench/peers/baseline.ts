/**
 * The regression guard's baseline: structrank as built from another git ref (by default the
 * last release), kept in bench/.peers/baseline-<commit>/ (ignored by git) so that
 * `npm run bench -- peers crf` can run it beside today's build on the same processor.
 * Built once per ref: `git archive` of the ref, node_modules linked to this checkout's,
 * the addon with node-gyp (through npx, as `npm run build:native` does) and dist/ with tsc;
 * today's bench/peers/structrank-run.mjs is copied in, so both builds are timed by the same
 * harness. A ref that cannot be built is reported and the guard is skipped.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PEERS_DIR } from './install.js';

/**
 * The last release's commit: the newest `v*` tag when there is one, else the build before
 * the per-processor vector variants (its CRF was the fastest measured on AMD's Zen 3).
 */
export const BASELINE_FALLBACK = '960ff7f';

/** A drop larger than this (today's CPU / baseline's CPU - 1) is reported as a regression. */
export const REGRESSION_TOLERANCE = 0.1;

function git(args: string[]): string | undefined {
  const r = spawnSync('git', args, { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

export function defaultBaselineRef(): string {
  return git(['describe', '--tags', '--abbrev=0', '--match', 'v*']) || BASELINE_FALLBACK;
}

export interface Baseline {
  ref: string;
  commit: string;
  /** The harness to run: bench/peers/structrank-run.mjs inside the baseline's tree. */
  runner: string;
}

/** Runs one build step, its output on stderr (node-gyp names each file it compiles: progress). */
function step(cmd: string, args: string[], cwd: string): boolean {
  console.error(`peers: baseline: ${cmd} ${args.join(' ')} (in ${cwd})`);
  return spawnSync(cmd, args, { cwd, stdio: ['ignore', 2, 'inherit'] }).status === 0;
}

/** Finds or builds the baseline for `ref`; undefined (with the reason on stderr) when it cannot. */
export function ensureBaseline(ref: string): Baseline | undefined {
  const commit = git(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
  if (!commit) {
    console.error(`peers: baseline: ${ref} is not a commit here; the regression guard is skipped`);
    return undefined;
  }
  const dir = join(PEERS_DIR, `baseline-${commit.slice(0, 12)}`);
  const runner = join(dir, 'bench', 'peers', 'structrank-run.mjs');
  const ready = (): boolean =>
    existsSync(join(dir, 'build', 'Release', 'structrank.node')) &&
    existsSync(join(dir, 'dist', 'tagger', 'tagger.js'));
  if (!ready()) {
    console.error(`peers: baseline: building ${ref} (${commit.slice(0, 12)}) into ${dir}, once (a few minutes)`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const archive = spawnSync('sh', ['-c', `git archive ${commit} | tar -x -C "${dir}"`], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const built =
      archive.status === 0 &&
      (symlinkSync(resolve('node_modules'), join(dir, 'node_modules')), true) &&
      step('npx', ['node-gyp', 'rebuild'], dir) &&
      step('npx', ['tsc', '-p', 'tsconfig.build.json'], dir);
    if (!built || !ready()) {
      console.error(`peers: baseline: ${ref} did not build; the regression guard is skipped`);
      return undefined;
    }
  }
  mkdirSync(join(dir, 'bench', 'peers'), { recursive: true });
  copyFileSync(resolve('bench/peers/structrank-run.mjs'), runner);
  return { ref, commit, runner };
}
