#!/usr/bin/env node
// The public API report: API Extractor reads the built .d.ts of each entry point of
// package.json `exports` and writes its surface to etc/api/<entry>.api.md, which is checked
// in, so every change to the public surface shows in review.
//   node scripts/api-report.mjs          update the reports (after npm run build:ts)
//   node scripts/api-report.mjs --check  fail when a report is stale (CI)
import { readFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Extractor, ExtractorConfig } from '@microsoft/api-extractor';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const check = process.argv.includes('--check');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const reportFolder = join(root, 'etc', 'api');
const tempFolder = join(root, 'build', 'api-report');
mkdirSync(reportFolder, { recursive: true });
mkdirSync(tempFolder, { recursive: true });

let failed = 0;
for (const [subpath, target] of Object.entries(pkg.exports)) {
  if (typeof target !== 'object' || !target.types) continue;
  const name = subpath === '.' ? 'structrank' : subpath.slice(2);
  const config = ExtractorConfig.prepare({
    configObject: {
      projectFolder: root,
      mainEntryPointFilePath: join(root, target.types),
      compiler: { tsconfigFilePath: join(root, 'tsconfig.build.json') },
      apiReport: { enabled: true, reportFileName: `${name}.api.md`, reportFolder, reportTempFolder: tempFolder },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        // The report lists what is exported; TSDoc style and re-export bookkeeping are not its job.
        extractorMessageReporting: {
          default: { logLevel: 'none' },
          'ae-missing-release-tag': { logLevel: 'none' },
        },
        tsdocMessageReporting: { default: { logLevel: 'none' } },
        compilerMessageReporting: { default: { logLevel: 'warning' } },
      },
    },
    configObjectFullPath: undefined,
    packageJsonFullPath: join(root, 'package.json'),
  });
  const result = Extractor.invoke(config, { localBuild: !check, showVerboseMessages: false });
  if (check && result.apiReportChanged) {
    console.error(
      `etc/api/${name}.api.md is stale: run \`npm run build:ts && node scripts/api-report.mjs\` and commit it`,
    );
    failed++;
  } else if (!result.succeeded && !result.apiReportChanged) {
    console.error(`API Extractor failed on ${target.types} (${result.errorCount} errors)`);
    failed++;
  }
}
if (failed > 0) process.exit(1);
console.log(check ? 'API reports are up to date' : `API reports written to etc/api/`);
