import { readNbestSync } from 'structrank';
import { conllevalCorpus, chunkSpans } from 'structrank/eval';
import { readFileSync, readdirSync } from 'node:fs';
const [cacheDir, ...rerankDirs] = process.argv.slice(2);
const dt = readdirSync(cacheDir).find((d) => d.startsWith('dev-test'));
for (const part of ['dev', 'test']) {
  const list = readNbestSync(`${cacheDir}/${dt}/${part}.jsonl`);
  const report = (name, chosen) => {
    let empty = 0, invented = 0, inventedEntities = 0;
    const sents = list.map((s, i) => ({ gold: s.gold, predicted: s.candidates[chosen[i]].tags }));
    for (const s of sents) {
      if (chunkSpans(s.gold).length === 0) {
        empty++;
        const n = chunkSpans(s.predicted).length;
        if (n > 0) invented++;
        inventedEntities += n;
      }
    }
    const o = conllevalCorpus(sents).overall;
    console.log(`${part} ${name.padEnd(44)} F1 ${o.f1.toFixed(2)} P ${o.precision.toFixed(2)} R ${o.recall.toFixed(2)}  entity-less sentences ${empty}: with an invented entity ${invented} (${(100 * invented / empty).toFixed(1)}%), ${inventedEntities} entities`);
  };
  report('base', list.map(() => 0));
  for (const d of rerankDirs) for (const r of readdirSync(d).filter((x) => x.startsWith('rerank-'))) {
    const res = JSON.parse(readFileSync(`${d}/${r}/result.json`, 'utf8'));
    report(`${d.includes('old') ? 'old Score' : 'new Score'} ${r.replace(/-[0-9a-f]{16}$/, '')}`, res[part]);
  }
}
