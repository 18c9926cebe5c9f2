/**
 * Finds or installs the peer programs the `peers` benchmark runs:
 *   XGBoost             Debian package `xgboost` (apt-get, when run as root);
 *   CRFsuite            the C sources bundled in npm's `crfsuite` package (fetched with
 *                       `npm pack`, never installed into node_modules), compiled with -O3
 *                       together with bench/peers/crfsuite-harness.c, CRFsuite's
 *                       command-line front end not being part of that package.
 * Everything built goes to bench/.peers/ (ignored by git). A peer that cannot be had is
 * reported as missing; the benchmark then prints the PEERS.md figure instead. Wapiti, the CRF
 * toolkit, is in no registry reachable here (Debian's `wapiti` is an unrelated web scanner).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const PEERS_DIR = resolve('bench/.peers');
const CRFSUITE_NPM = 'crfsuite@1.0.1';

export interface Peers {
  crfsuite?: string;
  xgboost?: string;
}

function which(cmd: string): string | undefined {
  const r = spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

function run(cmd: string, args: string[], cwd?: string): boolean {
  console.error(`peers: ${cmd} ${args.join(' ')}`);
  const r = spawnSync(cmd, args, { cwd, stdio: ['ignore', 'ignore', 'inherit'] });
  return r.status === 0;
}

function aptInstall(pkgs: string[]): void {
  if (process.getuid?.() !== 0) {
    console.error(`peers: not root, cannot apt-get install ${pkgs.join(' ')}`);
    return;
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = (): boolean =>
    spawnSync('apt-get', ['install', '-y', '-qq', ...pkgs], { stdio: ['ignore', 'ignore', 'inherit'], env }).status ===
    0;
  console.error(`peers: apt-get install ${pkgs.join(' ')}`);
  if (!install()) {
    spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
    install();
  }
}

function buildCrfsuite(): string | undefined {
  const bin = join(PEERS_DIR, 'crfsuite-harness');
  if (existsSync(bin)) return bin;
  mkdirSync(PEERS_DIR, { recursive: true });
  const src = join(PEERS_DIR, 'package');
  if (!existsSync(src)) {
    if (!run('npm', ['pack', CRFSUITE_NPM, '--silent'], PEERS_DIR)) return undefined;
    const tgz = readdirSync(PEERS_DIR).find((f) => f.startsWith('crfsuite-') && f.endsWith('.tgz'));
    if (!tgz || !run('tar', ['xzf', tgz], PEERS_DIR)) return undefined;
  }
  const crf = join(src, 'crfsuite/lib/crf/src');
  const sources = [
    join(src, 'liblbfgs/lib/lbfgs.c'),
    ...readdirSync(crf)
      .filter((f) => f.endsWith('.c'))
      .map((f) => join(crf, f)),
    join(src, 'crfsuite/lib/cqdb/src/cqdb.c'),
    join(src, 'crfsuite/lib/cqdb/src/lookup3.c'),
    resolve('bench/peers/crfsuite-harness.c'),
  ];
  // -O3 with SSE2 vector arithmetic in L-BFGS, as CRFsuite's own release build.
  const ok = run('gcc', [
    '-O3',
    '-DUSE_SSE',
    '-DHAVE_EMMINTRIN_H',
    '-w',
    `-I${join(src, 'liblbfgs/include')}`,
    `-I${join(src, 'crfsuite/include')}`,
    `-I${join(src, 'crfsuite/lib/cqdb/include')}`,
    ...sources,
    '-lm',
    '-o',
    bin,
  ]);
  return ok ? bin : undefined;
}

/** Finds the peers, installing what is missing. */
export function ensurePeers(): Peers {
  if (!which('xgboost')) aptInstall(['xgboost']);
  return { crfsuite: buildCrfsuite(), xgboost: which('xgboost') };
}
