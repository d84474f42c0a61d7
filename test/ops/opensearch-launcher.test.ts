/**
 * `npm run opensearch`'s plan of a local cluster (ports, homes, discovery settings) and its
 * refusal of a bad command line. Starting real nodes is the business of the suites that need
 * them (test/search/opensearch-cluster.test.ts, test/indexer/opensearch-restart.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { planNodes } from '../../src/cli/opensearch.js';
import { runTool } from '../support/run-tool.js';

describe('npm run opensearch', () => {
  it('plans one node as a single-node cluster in DATA_DIR/opensearch, as it always was', () => {
    expect(planNodes(1, 9200, '/data')).toEqual([
      { name: 'tagwise-local', url: 'http://127.0.0.1:9200', env: { OPENSEARCH_PORT: '9200', OPENSEARCH_HOME: '/data/opensearch' } },
    ]);
  });

  it('plans a cluster on fixed ports: HTTP from the base, transport 100 above, every node seeding with all', () => {
    const plans = planNodes(3, 9200, '/data');
    expect(plans.map((p) => p.url)).toEqual(['http://127.0.0.1:9200', 'http://127.0.0.1:9201', 'http://127.0.0.1:9202']);
    expect(plans[2]).toEqual({
      name: 'tagwise-3',
      url: 'http://127.0.0.1:9202',
      env: {
        OPENSEARCH_PORT: '9202',
        OPENSEARCH_TRANSPORT_PORT: '9302',
        OPENSEARCH_HOME: '/data/opensearch-cluster/node-3',
        OPENSEARCH_NODE_NAME: 'tagwise-3',
        OPENSEARCH_SEED_HOSTS: '127.0.0.1:9300,127.0.0.1:9301,127.0.0.1:9302',
        OPENSEARCH_INITIAL_MANAGERS: 'tagwise-1,tagwise-2,tagwise-3',
      },
    });
    expect(new Set(plans.map((p) => p.env.OPENSEARCH_HOME)).size).toBe(3);
  });

  it.each([
    [['--nodes', '0'], {}, /--nodes must be a whole number from 1 to 9, not 0/],
    [['--nodes', 'three'], {}, /--nodes must be a whole number/],
    [['--nodes', '3'], { OPENSEARCH_PORT: '65500' }, /OPENSEARCH_PORT must be a port number leaving room for 3 node\(s\)/],
    [['--nodes', '2'], { OPENSEARCH_HEAP: 'lots' }, /OPENSEARCH_HEAP must be a size/],
    [['--cluster'], {}, /Unknown option '--cluster'/],
  ])('refuses %j (%j) with its usage and status 2, before building anything', async (args, env, message) => {
    const run = await runTool('src/cli/opensearch.ts', args, env, 60_000);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).toContain('Usage: npm run opensearch');
  });
});
