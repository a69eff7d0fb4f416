// The sale bench's reading client (bench/modes/sale.ts): administrators' and members' pages in turn, one at a time,
// each timed, until told to stop. A worker thread with its own event loop, so that the 64 writers' connections in the
// bench's main thread do not delay its requests and their replies. Plain JavaScript: a worker loads no TypeScript.
import { execFileSync } from 'node:child_process';
import { readlinkSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';

const { baseUrl, tokens, shapes, cores } = workerData;
// This thread alone, where the bench pins the reading clients.
if (cores) execFileSync('taskset', ['--cpu-list', '--pid', cores, readlinkSync('/proc/thread-self').split('/').pop()]);
const reads = []; // [kind, query, ms, status, problem type, stale, sent at (epoch ms)]
let running = true;
const problemType = (body) => {
  try {
    return JSON.parse(body).type ?? '';
  } catch {
    return 'not problem+json';
  }
};
parentPort.once('message', () => {
  running = false;
});

for (let index = 0; running; index += 1) {
  // Administrators and members in turn; each member read the next member's, every fourth the busiest member's.
  const turn = Math.floor(index / 2);
  const kind = index % 2 === 0 ? 'admin' : turn % 4 === 3 ? 'busiest' : 'member';
  const queries = shapes[kind === 'admin' ? 'admin' : 'member'];
  const query = queries[turn % queries.length];
  const token =
    kind === 'admin'
      ? tokens.admin
      : kind === 'busiest'
        ? tokens.busiest
        : tokens.members[turn % tokens.members.length];
  const sentAt = Date.now();
  const started = performance.now();
  const response = await fetch(`${baseUrl}/orders?${query}`, { headers: { authorization: `Bearer ${token}` } });
  const body = await response.text();
  const ms = performance.now() - started;
  const type = response.status >= 400 ? problemType(body) : '';
  reads.push([kind, query, ms, response.status, type, response.headers.get('data-staleness') !== null, sentAt]);
  // Lets the stop message in between requests.
  await new Promise((resolve) => setImmediate(resolve));
}
parentPort.postMessage(reads);
