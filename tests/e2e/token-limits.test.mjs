// The token lifetime and the pending capacity the agent reads (fabric_propose_change's
// description and the server instructions) are the configured ones, not fixed text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startBroker } from './lib.mjs';

test('the default TTL and capacity read "10 minutes" and "20"', async () => {
  const b = await startBroker();
  try {
    const { tools } = await b.client.listTools();
    const propose = tools.find((t) => t.name === 'fabric_propose_change');
    assert.match(propose.description, /Tokens expire after 10 minutes; at most 20 are pending\./);
    const instructions = b.client.getInstructions();
    assert.match(instructions, /expire after 10 minutes \(at most 20 are pending\)/);
  } finally {
    await b.close();
  }
});

test('a configured TTL and capacity show in tools/list and the instructions', async () => {
  const b = await startBroker({
    env: { EQUINIX_MCP_PROPOSAL_TTL_MS: '90000', EQUINIX_MCP_MAX_PENDING: '7' },
  });
  try {
    const { tools } = await b.client.listTools();
    const propose = tools.find((t) => t.name === 'fabric_propose_change');
    assert.match(propose.description, /Tokens expire after 90 seconds; at most 7 are pending\./);
    assert.doesNotMatch(propose.description, /10 minutes|at most 20/);
    const instructions = b.client.getInstructions();
    assert.match(instructions, /expire after 90 seconds \(at most 7 are pending\)/);
    assert.doesNotMatch(instructions, /10 minutes/);
  } finally {
    await b.close();
  }
});

test('a TTL that is not whole seconds is given in milliseconds', async () => {
  const b = await startBroker({ env: { EQUINIX_MCP_PROPOSAL_TTL_MS: '61500' } });
  try {
    const { tools } = await b.client.listTools();
    const propose = tools.find((t) => t.name === 'fabric_propose_change');
    assert.match(propose.description, /Tokens expire after 61500 ms; at most 20 are pending\./);
    assert.match(b.client.getInstructions(), /expire after 61500 ms/);
  } finally {
    await b.close();
  }
});
