import type { Command } from '../cli/command.js';
import { parseCommandArgs, requireOption } from '../cli/args.js';
import { checkRedisUrl } from '../distributed/connection.js';
import { formatQueueStatus, queueStatus } from '../distributed/status.js';

const command: Command = {
  name: 'queue status',
  summary: 'jobs waiting/active/done/failed per step on a Redis queue, and the workers alive',
  usage: `structrank queue status --redis URL [--json]
  --redis URL   redis://[user:pass@]host[:port][/db] or rediss://... (TLS)
  --json        print the counts as JSON: {queue, steps: {<kind>: {waiting, active, done, failed}}, total, workers}`,
  async run(args) {
    const { values } = parseCommandArgs('queue status', args, { redis: { type: 'string' }, json: { type: 'boolean' } }, false);
    const redis = checkRedisUrl('queue status', requireOption('queue status', values.redis, 'redis'));
    const status = await queueStatus(redis);
    console.log(values.json ? JSON.stringify(status, null, 2) : formatQueueStatus(status));
    return 0;
  },
};
export default command;
