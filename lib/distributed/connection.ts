/**
 * Redis connections for the queue. A URL is `redis://[user:pass@]host[:port][/db]` or
 * `rediss://...` (TLS). Before anything else we probe the server once with short timeouts
 * and no retries, so an unreachable Redis is one clear error within seconds instead of a
 * client reconnecting forever.
 */
import { Redis, type RedisOptions } from 'ioredis';
import { InputError, UsageError } from '../errors.js';

/** The one BullMQ queue every structrank job goes through. */
export const QUEUE_NAME = 'structrank';

/** How long the probe waits for Redis before giving up. */
const CONNECT_TIMEOUT_MS = 3000;

/** Redis could not be reached or refused us: reported like bad input, naming the URL. */
export class RedisUnavailable extends InputError {
  constructor(url: string, reason: string) {
    super(redactUrl(url), undefined, `cannot reach Redis: ${reason} (is redis-server running, and is the URL right?)`);
    this.name = 'RedisUnavailable';
  }
}

/**
 * An error met while talking to Redis, as the one line to show: RedisUnavailable when the
 * connection is down (the server gone for longer than the client's reconnects), else as it is.
 */
export function lostConnection(url: string, connection: Redis, err: unknown): unknown {
  if (err instanceof InputError || (err as Error)?.name === 'AbortError' || connection.status === 'ready') return err;
  return new RedisUnavailable(
    url,
    `the connection was lost during the run (${(err as Error)?.message ?? String(err)})`,
  );
}

/** The URL without its password, for messages and logs. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password !== '') u.password = '***';
    return u.toString();
  } catch {
    return url;
  }
}

/** Checks the URL's form: redis:// or rediss:// with a host. */
export function checkRedisUrl(command: string, url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new UsageError(`${command}: --redis expects a URL such as redis://127.0.0.1:6379, got '${url}'`);
  }
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:')
    throw new UsageError(`${command}: --redis expects a redis:// or rediss:// URL, got '${redactUrl(url)}'`);
  if (u.hostname === '') throw new UsageError(`${command}: --redis URL has no host: '${redactUrl(url)}'`);
  return url;
}

function baseOptions(): RedisOptions {
  return { connectTimeout: CONNECT_TIMEOUT_MS, lazyConnect: true };
}

/** Connects once, with no retries, and pings; throws RedisUnavailable when that fails. */
export async function probeRedis(url: string): Promise<void> {
  const client = new Redis(url, {
    ...baseOptions(),
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
  let lastError: Error | undefined;
  client.on('error', (err: Error) => {
    lastError = err;
  });
  try {
    await client.connect();
    await client.ping();
  } catch (err) {
    throw new RedisUnavailable(url, (lastError ?? (err as Error)).message || String(err));
  } finally {
    client.disconnect();
  }
}

/**
 * A connection for BullMQ. Workers block on Redis and must retry forever
 * (maxRetriesPerRequest null, which BullMQ requires); a coordinator gives up after a few
 * seconds of lost connection so it reports the problem instead of waiting for ever.
 */
export async function connectRedis(
  url: string,
  role: 'worker' | 'client',
  onError?: (err: Error) => void,
): Promise<Redis> {
  await probeRedis(url);
  const client = new Redis(url, {
    ...baseOptions(),
    maxRetriesPerRequest: role === 'worker' ? null : 2,
    retryStrategy: role === 'worker' ? (times) => Math.min(times * 500, 5000) : (times) => (times > 10 ? null : 500),
  });
  client.on('error', (err: Error) => onError?.(err));
  await client.connect();
  return client;
}
