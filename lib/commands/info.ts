import { defineCommand } from './command.js';
import { json, optionalFile } from '../options/common.js';
import { option } from '../options/field.js';
import { native } from '../native.js';
import { formatModelFileInfo, modelFileInfo } from './model-info.js';

const command = defineCommand({
  description:
    'Shows the native addon: its N-API version, its modules and the default thread count. With --model, shows a model file instead: its kind, format version and size, and what its trainer recorded (algorithm, labels, sizes, options).',
  options: {
    model: optionalFile('a model file (tagger, chart parser, reranker) to describe instead of the addon', 'M'),
    json: option(json, 'print the result as JSON on stdout'),
  },
  examples: ['structrank info', 'structrank info --json', 'structrank info --model chunker.model'],
  async run(values) {
    if (values.model !== undefined) {
      const m = await modelFileInfo(values.model);
      console.log(values.json ? JSON.stringify(m, null, 2) : formatModelFileInfo(m));
      return;
    }
    const info = native().nativeInfo();
    if (values.json) console.log(JSON.stringify(info));
    else
      console.log(
        `native addon: N-API ${info.abi}; modules: ${info.modules.join(', ')}; default threads: ${info.defaultThreads}`,
      );
  },
});
export default command;
