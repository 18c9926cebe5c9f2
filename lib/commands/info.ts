import type { Command } from '../cli/command.js';
import { parseCommandArgs } from '../cli/args.js';
import { native } from '../native.js';

const command: Command = {
  name: 'info',
  summary: 'show the native addon, its modules and the default thread count',
  usage: 'structrank info [--json]',
  async run(args) {
    const { values } = parseCommandArgs('info', args, { json: { type: 'boolean' } }, false);
    const info = native().nativeInfo();
    if (values.json) console.log(JSON.stringify(info));
    else console.log(`native addon: N-API ${info.abi}; modules: ${info.modules.join(', ')}; default threads: ${info.defaultThreads}`);
  },
};
export default command;
