// The example walk without Prism (issue 15): every request example of the official Fabric v4
// spec, mapped onto the sandbox estate, is accepted by the sandbox's dry run, and the broker
// either proposes it (inside the typed subset) or refuses it with a reason CONTRACT.md lists.
// The same walk with Prism on the official spec runs in the CI contract step
// (tests/e2e/contract/examples.test.mjs, .ci/steps/30-contract.sh). Skips with a message when
// ../shared (the official spec) is absent.
import { registerWalk } from './contract/walk-runner.mjs';

registerWalk({ prism: false });
