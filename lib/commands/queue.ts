import { defineCommand } from './command.js';
import { option } from '../options/field.js';
import { json } from '../options/common.js';
import { redis } from '../options/distributed.js';
import { checkRedisUrl } from '../distributed/connection.js';
import { formatQueueStatus, queueStatus } from '../distributed/status.js';

const command = defineCommand({
  description: 'Counts the jobs waiting, active, done and failed per step on a Redis queue, and the workers alive.',
  options: {
    redis,
    json: option(
      json,
      'print the counts as JSON: {queue, steps: {<kind>: {waiting, active, done, failed}}, total, workers}',
    ),
  },
  examples: ['structrank queue status --redis redis://queue-host:6379'],
  async run(values) {
    const redisUrl = checkRedisUrl('queue status', values.redis);
    const status = await queueStatus(redisUrl);
    console.log(values.json ? JSON.stringify(status, null, 2) : formatQueueStatus(status));
    return 0;
  },
});
export default command;
