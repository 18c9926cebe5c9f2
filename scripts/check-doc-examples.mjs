#!/usr/bin/env node
// Runs the examples of the manual (docs/*.md and README.md), so that an example that no longer
// works fails CI (.ci/run, "doc examples").
//
//   ```sh  blocks run with bash -e in a scratch folder per page, where `structrank` is
//          `node <checkout>/dist/cli.js`, node_modules/structrank is the checkout (its data/)
//          and ../shared/data is the checkout's ../shared/data.
//   ```ts  blocks are all type-checked (tsc --strict, module nodenext, `structrank` resolving
//          to the built dist/ of the checkout) and then run with tsx in their page's folder.
//
// A block that must not run in CI carries an HTML comment on the line before its fence:
//   <!-- example: not run in CI: trains for an hour -->   listed as skipped with its reason;
//        a sh block's `structrank` commands are still parsed against `<command> --help`
//        (a renamed option fails), a ts block is still type-checked. Lines after the first,
//        up to `-->`, are TypeScript put before a ts block for its type check (the names a
//        fragment takes from the text around it).
//   <!-- example: needs convert (merging) -->            not checked at all (a feature on its way).
// Blocks between `<!-- generated:` and `<!-- end:` (the CLI reference) have their options checked.
// An unmarked block that fails fails the check.
//
//   node scripts/check-doc-examples.mjs [--root DIR] [files.md ...]
// Needs `npm run build:ts` and the addon first. Prints the blocks run, type-checked and skipped,
// and the CPU seconds taken (this process and its children).
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** The ```sh and ```ts blocks of one Markdown text, with their markers. */
export function extractBlocks(text, file) {
  const lines = text.split('\n');
  const blocks = [];
  let generated = false;
  for (let i = 0; i < lines.length; i++) {
    if (/^<!-- generated:/.test(lines[i])) generated = true;
    if (/^<!-- end:/.test(lines[i])) generated = false;
    const open = /^```(sh|ts)\s*$/.exec(lines[i]);
    if (!open) {
      if (/^```/.test(lines[i])) {
        // another fenced block: step over it
        for (i++; i < lines.length && !/^```\s*$/.test(lines[i]); i++);
      }
      continue;
    }
    const start = i + 1;
    let end = start;
    while (end < lines.length && !/^```\s*$/.test(lines[end])) end++;
    const code = lines.slice(start, end).join('\n') + '\n';
    blocks.push({ file, line: i + 1, lang: open[1], code, marker: markerBefore(lines, i), generated });
    i = end;
  }
  return blocks;
}

/** The `<!-- example: ... -->` comment ending on the line before the fence at `fence`. */
function markerBefore(lines, fence) {
  const last = fence - 1;
  if (last < 0 || !/-->\s*$/.test(lines[last])) return null;
  let first = last;
  while (first >= 0 && !/<!--/.test(lines[first])) first--;
  if (first < 0) return null;
  const head = /^<!--\s*example:\s*(.*?)\s*(-->)?\s*$/.exec(lines[first]);
  if (!head) return null;
  const body = first === last ? [] : lines.slice(first + 1, last + 1);
  if (body.length) body[body.length - 1] = body[body.length - 1].replace(/-->\s*$/, '');
  const reason = head[1];
  return { reason, needs: /^needs\b/.test(reason), prelude: body.join('\n').trim() };
}

/** Shell words of a line (quotes removed; enough for the docs' commands). */
function shellWords(line) {
  const words = [];
  const re = /'([^']*)'|"((?:[^"\\]|\\.)*)"|(\S+)/g;
  for (let m; (m = re.exec(line));) words.push(m[1] ?? m[2] ?? m[3]);
  return words;
}

/** Each `structrank ...` command of a sh block: { words, line } with $VARS of the block expanded. */
export function structrankCommands(code) {
  const vars = {};
  const out = [];
  const joined = code.replace(/\\\n/g, ' ').split('\n');
  for (const raw of joined) {
    const line = raw.replace(/(^|\s)#.*$/, '');
    for (const part of line.split(/&&|\|\||;|\|/)) {
      const assign = /^\s*([A-Z_][A-Z0-9_]*)=("([^"]*)"|'([^']*)'|(\S*))\s*$/.exec(part);
      if (assign) {
        vars[assign[1]] = assign[3] ?? assign[4] ?? assign[5];
        continue;
      }
      const expanded = part.replace(/\$\{?([A-Z_][A-Z0-9_]*)\}?/g, (_, n) => vars[n] ?? '');
      let words = shellWords(expanded).filter((w) => !/^[<>]/.test(w));
      while (words.length && /^[A-Z_][A-Z0-9_]*=/.test(words[0])) words = words.slice(1); // VAR=x cmd
      if (words[0] === 'npx') words = words.slice(1);
      if (words[0] === 'structrank') out.push({ words: words.slice(1), line: raw.trim() });
    }
  }
  return out;
}

const TWO_WORD = new Set(['kernel', 'eval', 'queue']);

/** Checks every option of every `structrank` command against `<command> --help`. Returns problems. */
export function checkFlags(code, cli) {
  const problems = [];
  for (const { words, line } of structrankCommands(code)) {
    const n = TWO_WORD.has(words[0]) ? 2 : 1;
    const command = words.slice(0, n);
    if (command.length === 0 || command.some((w) => w.startsWith('-'))) continue; // `structrank --help`
    const options = cli.options(command);
    if (!options) {
      problems.push(`unknown command 'structrank ${command.join(' ')}' in: ${line}`);
      continue;
    }
    for (const w of words.slice(n)) {
      if (!w.startsWith('-') || w === '-' || w === '--') continue;
      const name = w.split('=')[0];
      if (!options.has(name)) problems.push(`'structrank ${command.join(' ')}' has no option ${name} in: ${line}`);
    }
  }
  return problems;
}

/** `node dist/cli.js <command> --help`, parsed once per command into its option names. */
function helpReader(root) {
  const cache = new Map();
  return {
    options(command) {
      const key = command.join(' ');
      if (!cache.has(key)) {
        const r = spawnSync(process.execPath, [join(root, 'dist', 'cli.js'), ...command, '--help'], {
          encoding: 'utf8',
        });
        const text = r.stdout ?? '';
        const at = text.indexOf('Options:');
        if (r.status !== 0 || at < 0 || !text.startsWith(`Usage: structrank ${key}`)) cache.set(key, null);
        else {
          // Only the names that start an option line, in Options: and the groups after it up to
          // Examples: (not the flags that descriptions or examples mention).
          const names = new Set(['-h', '--help']);
          for (const l of text.slice(at).split('\n').slice(1)) {
            if (/^Examples:/.test(l)) break;
            const m = /^ {2}(?:(-\w),\s+)?(--[\w-]+)/.exec(l); // descriptions wrap deeper
            if (m) {
              if (m[1]) names.add(m[1]);
              names.add(m[2]);
            }
          }
          cache.set(key, names);
        }
      }
      return cache.get(key);
    },
  };
}

/** CPU seconds of this process and its waited-for children (Linux /proc; else this process). */
function cpuSeconds() {
  try {
    const f = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / 100;
  } catch {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1e6;
  }
}

/** Checks the blocks; returns { run, typed, skipped, failures }. */
export function checkDocs({ root, files, log = console.log, timeoutMs = 600_000 }) {
  const report = { run: [], typed: [], skipped: [], failures: [] };
  const cli = helpReader(root);
  const shared = resolve(root, '..', 'shared');
  const hasShared = existsSync(join(shared, 'data'));
  const scratch = mkdtempSync(join(tmpdir(), 'structrank-docs-'));
  const where = (b) => `${relative(root, b.file)}:${b.line}`;
  const fail = (b, what) => {
    report.failures.push(`${where(b)}: ${what}`);
    log(`FAIL ${where(b)}: ${what}`);
  };
  try {
    mkdirSync(join(scratch, 'bin'));
    writeFileSync(
      join(scratch, 'bin', 'structrank'),
      `#!/bin/sh\nexec "${process.execPath}" "${join(root, 'dist', 'cli.js')}" "$@"\n`,
      { mode: 0o755 },
    );
    if (hasShared) symlinkSync(realpathSync(shared), join(scratch, 'shared'), 'dir');
    const consumer = (dir) => {
      mkdirSync(join(dir, 'node_modules'), { recursive: true });
      symlinkSync(root, join(dir, 'node_modules', 'structrank'), 'dir');
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'doc-examples', private: true, type: 'module' }));
    };
    const pages = files.map((file) => ({ file, blocks: extractBlocks(readFileSync(file, 'utf8'), file) }));

    // 1. Type-check every ts block (except `needs`) in one tsc run.
    const tsDir = join(scratch, 'types');
    consumer(tsDir);
    const tsFiles = new Map();
    const typeFailed = new Set();
    for (const { blocks } of pages)
      for (const b of blocks) {
        if (b.lang !== 'ts' || b.marker?.needs) continue;
        const name = `${basename(b.file, '.md')}-${b.line}.ts`;
        writeFileSync(join(tsDir, name), `${b.marker?.prelude ? b.marker.prelude + '\n' : ''}${b.code}\nexport {};\n`);
        tsFiles.set(name, b);
      }
    if (tsFiles.size) {
      writeFileSync(
        join(tsDir, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            strict: true,
            module: 'nodenext',
            moduleResolution: 'nodenext',
            target: 'ES2022',
            noEmit: true,
            types: ['node'],
            typeRoots: [join(root, 'node_modules', '@types')],
          },
          files: [...tsFiles.keys()],
        }),
      );
      const tsc = spawnSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', '.'], {
        cwd: tsDir,
        encoding: 'utf8',
      });
      const errors = new Map();
      for (const l of (tsc.stdout + tsc.stderr).split('\n')) {
        const m = /^([\w.-]+\.ts)\(\d+,\d+\): error/.exec(l);
        if (m && tsFiles.has(m[1])) errors.set(m[1], [...(errors.get(m[1]) ?? []), l]);
      }
      if (tsc.status !== 0 && errors.size === 0) throw new Error(`tsc failed:\n${tsc.stdout}${tsc.stderr}`);
      for (const [name, b] of tsFiles) {
        if (errors.has(name)) {
          fail(b, `type errors:\n  ${errors.get(name).join('\n  ')}`);
          typeFailed.add(b);
        } else report.typed.push(where(b));
      }
    }

    // 2. Run the blocks of each page in order in the page's folder.
    const env = { ...process.env, PATH: `${join(scratch, 'bin')}:${process.env.PATH}`, NO_COLOR: '1' };
    const tsx = join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs');
    for (const { file, blocks } of pages) {
      const dir = join(scratch, basename(file, '.md'));
      consumer(dir);
      for (const b of blocks) {
        if (b.marker?.needs) {
          report.skipped.push(`${where(b)} (${b.lang}, not checked): ${b.marker.reason}`);
          continue;
        }
        if (b.lang === 'sh' && (b.marker || b.generated)) {
          const problems = checkFlags(b.code, cli);
          for (const p of problems) fail(b, p);
          const why = b.marker ? b.marker.reason : 'the generated CLI reference';
          report.skipped.push(`${where(b)} (sh, options checked against --help): ${why}`);
          continue;
        }
        if (b.marker) {
          report.skipped.push(
            `${where(b)} (ts, ${typeFailed.has(b) ? 'type errors' : 'type-checked'}): ${b.marker.reason}`,
          );
          continue;
        }
        if (typeFailed.has(b)) continue; // failed already; running it would say the same again
        if (/\.\.\/shared\/data/.test(b.code) && !hasShared) {
          if (process.env.CI) fail(b, `needs ../shared/data, which is missing (${shared})`);
          else report.skipped.push(`${where(b)} (${b.lang}): needs shared data: ${join(shared, 'data')} is missing`);
          continue;
        }
        if (b.lang === 'sh') {
          // options first: a clearer error than the command's own
          const problems = checkFlags(b.code, cli);
          if (problems.length) {
            problems.forEach((p) => fail(b, p));
            continue;
          }
        }
        const t0 = cpuSeconds();
        const r =
          b.lang === 'sh'
            ? spawnSync('bash', ['-e', '-o', 'pipefail', '-c', b.code], {
                cwd: dir,
                env,
                encoding: 'utf8',
                timeout: timeoutMs,
              })
            : (writeFileSync(join(dir, `example-${b.line}.ts`), b.code + '\nexport {};\n'),
              spawnSync(process.execPath, [tsx, `example-${b.line}.ts`], {
                cwd: dir,
                env,
                encoding: 'utf8',
                timeout: timeoutMs,
              }));
        const cpu = (cpuSeconds() - t0).toFixed(1);
        if (r.status !== 0)
          fail(
            b,
            `exit ${r.status ?? r.signal}${r.error ? ` (${r.error.message})` : ''}:\n${(r.stderr ?? '').split('\n').slice(-15).join('\n')}`,
          );
        else {
          report.run.push(`${where(b)} (${b.lang}, ${cpu} CPU s)`);
          log(`ran ${where(b)} (${b.lang}, ${cpu} CPU s)`);
        }
      }
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return report;
}

function main() {
  const args = process.argv.slice(2);
  let root = resolve(here, '..');
  const at = args.indexOf('--root');
  if (at >= 0) {
    root = resolve(args[at + 1]);
    args.splice(at, 2);
  }
  const files = args.length
    ? args.map((f) => resolve(f))
    : [
        join(root, 'README.md'),
        ...readdirSync(join(root, 'docs'))
          .filter((f) => f.endsWith('.md'))
          .sort()
          .map((f) => join(root, 'docs', f)),
      ];
  const t0 = cpuSeconds();
  const r = checkDocs({ root, files });
  const list = (title, items) => {
    console.log(`\n${title} (${items.length}):`);
    for (const i of items) console.log(`  ${i}`);
  };
  list('run', r.run);
  list('type-checked', r.typed);
  list('skipped', r.skipped);
  console.log(
    `\ndoc examples: ${r.run.length} run, ${r.typed.length} type-checked, ${r.skipped.length} skipped, ${r.failures.length} failed; ${(cpuSeconds() - t0).toFixed(1)} CPU s`,
  );
  if (r.failures.length) {
    list(
      'FAILED',
      r.failures.map((f) => f.split('\n')[0]),
    );
    process.exit(1);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
