import type { Command } from '../cli/command.js';
import { parseCommandArgs } from '../cli/args.js';
import { native } from '../native.js';

const command: Command = {
  name: 'demo',
  summary: 'run the reranking pipeline on the embedded GUM data',
  usage: 'structrank demo',
  async run(args) {
    parseCommandArgs('demo', args, {}, false);
    const info = native().nativeInfo();
    console.log(`structrank native core loaded (N-API ${info.abi}, ${info.defaultThreads} threads).`);
    console.log('The end-to-end demo (parse, rerank, report on data/gum-open) arrives with the pipeline issue.');
  },
};
export default command;
