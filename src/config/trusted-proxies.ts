import { compile } from '@fastify/proxy-addr';

/** Whether the hop at `address`, `hop` steps from the service (0: the connection's peer), is a proxy whose
 * `X-Forwarded-For` entry is believed; the client is the first address, from the service outwards, that is not. */
export type ProxyTrust = (address: string, hop: number) => boolean;

const HOP_COUNT = /^\d+$/;

/** TRUST_PROXY: unset or `0`, no proxy is trusted; a number, that many hops in front are proxies; otherwise the
 * proxies' addresses and CIDRs (or proxy-addr's names `loopback`, `linklocal`, `uniquelocal`). */
export function readTrustedProxies(value: string | undefined): { trust?: ProxyTrust; problems: string[] } {
  if (value === undefined) return { problems: [] };
  if (HOP_COUNT.test(value)) {
    const hops = Number(value);
    return { trust: hops === 0 ? undefined : (_address, hop) => hop < hops, problems: [] };
  }
  const addresses = value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
  try {
    return { trust: compile(addresses), problems: [] };
  } catch (error) {
    return {
      problems: [
        `TRUST_PROXY: must be a hop count or comma-separated proxy addresses or CIDRs (${(error as Error).message})`,
      ],
    };
  }
}
