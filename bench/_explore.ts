import { readTreesSync } from '/work/wt/chart/lib/io/treebank.js';
import { ChartParserModel } from '/work/wt/chart/lib/parser/chart-parser.js';
import { evaluateParser } from '/work/wt/chart/lib/parser/evaluate.js';
import { treeWords } from '/work/wt/chart/lib/parser/input.js';
const D = '/work/shared/data/ptb-sample/';
const L = Number(process.env.L ?? 15);
const train = readTreesSync(D + 'train.mrg').filter((t) => treeWords(t).length <= L);
const dev = readTreesSync(D + 'dev.mrg');
console.log('train', train.length);
const pcfg = await ChartParserModel.train(train, { threads: 2 });
console.log('pcfg dev<=' + L, (await evaluateParser(pcfg, dev, { threads: 2, maxLength: L })).f1.toFixed(2));
const t0 = Date.now();
const crf = await ChartParserModel.train(train, {
  crf: true, threads: 2, epochs: Number(process.env.E ?? 2), eta0: Number(process.env.ETA ?? 0.1), sigma2: Number(process.env.S2 ?? 1), beam: Number(process.env.BEAM ?? Infinity), priorAtPcfg: process.env.P0 !== '0',
  onProgress: (p) => { if (p.step === p.stepsPerEpoch) console.log('epoch', p.epoch, 'obj', p.objective.toFixed(3), 'kept', p.keptFraction.toFixed(3), ((Date.now() - t0) / 1000).toFixed(1) + 's'); },
});
console.log('crf dev<=' + L, (await evaluateParser(crf, dev, { threads: 2, maxLength: L })).f1.toFixed(2), 'maxrss MB', (process.resourceUsage().maxRSS / 1024).toFixed(0));
