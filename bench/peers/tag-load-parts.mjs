/**
 * Where loading a tagger model spends its CPU, in one process:
 *   node bench/peers/tag-load-parts.mjs MODEL
 * prints one JSON line of CPU ms: reading the file into native memory (`read`), checking the
 * container and its SHA-256 (`decode`), and building the native model (`native`: format 2
 * uses its arrays in place, format 1 copies them and rebuilds the attribute hash table), and
 * the max RSS. The same steps as Tagger.loadSync. Uses the built dist/ (npm run build:ts).
 */
const cpu = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1e3;
};
const { native } = await import('../../dist/native.js');
const { readModelBytes } = await import('../../dist/tagger/model-bytes.js');
const { decodeModel } = await import('../../dist/io/model-file.js');
const { NativeTagger } = native();
const file = process.argv[2];
let t = cpu();
const bytes = readModelBytes(file, (size) => NativeTagger.sharedBytes(size));
const read = cpu() - t;
t = cpu();
const model = decodeModel(bytes, file, 'tagger');
const decode = cpu() - t;
t = cpu();
NativeTagger.deserialize(model.payload);
const built = cpu() - t;
console.log(
  JSON.stringify({
    version: model.kindVersion,
    mb: bytes.length / 1e6,
    read,
    decode,
    native: built,
    maxRssMb: process.resourceUsage().maxRSS / 1024,
  }),
);
