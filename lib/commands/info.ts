import { defineCommand } from '../cli/command.js';
import { json } from '../options/common.js';
import { native } from '../native.js';

const command = defineCommand({
  description: 'Shows the native addon: its N-API version, its modules and the default thread count.',
  options: { json },
  examples: ['structrank info', 'structrank info --json'],
  async run(values) {
    const info = native().nativeInfo();
    if (values.json) console.log(JSON.stringify(info));
    else console.log(`native addon: N-API ${info.abi}; modules: ${info.modules.join(', ')}; default threads: ${info.defaultThreads}`);
  },
});
export default command;
