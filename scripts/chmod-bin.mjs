#!/usr/bin/env node
// Marks the package's bin files executable after tsc wrote them. npm sets the mode when it
// installs structrank as a dependency, but not for the project itself, so without this a
// fresh clone's `npx structrank` fails with "Permission denied".
import { chmodSync, readFileSync, statSync } from 'node:fs';

const { bin } = JSON.parse(readFileSync('package.json', 'utf8'));
for (const file of Object.values(typeof bin === 'string' ? { bin } : (bin ?? {}))) {
  chmodSync(file, statSync(file).mode | 0o111);
}
