/**
 * Where a structrank tagging process spends its CPU, phase by phase, in one process:
 *   node bench/peers/tag-phases.mjs MODEL INPUT OUT
 * prints one JSON line: CPU ms at the first line of this script (Node start-up), of importing
 * the tagger modules and loading the addon, of loading the model (reading, checksum, building
 * the in-memory model), and of streaming the input through the tagger (tag-stream.js), and
 * the max RSS. Uses the built dist/ (npm run build:ts).
 */
const cpu = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1e3;
};
const start = cpu();
const [model, input, out] = process.argv.slice(2);
const { Tagger } = await import('../../dist/tagger/tagger.js');
const { tagStream } = await import('../../dist/tagger/tag-stream.js');
const { native } = await import('../../dist/native.js');
native();
const imported = cpu();
const tagger = Tagger.loadSync(model);
const loaded = cpu();
await tagStream(tagger, { input, out, separator: 'whitespace', threads: 1 });
const tagged = cpu();
console.log(
  JSON.stringify({
    startup: start,
    imports: imported - start,
    load: loaded - imported,
    tag: tagged - loaded,
    maxRssMb: process.resourceUsage().maxRSS / 1024,
  }),
);
