// The example walk with Prism (CI contract step, .ci/steps/30-contract.sh): every request
// example of the official Fabric v4 spec, mapped onto the sandbox estate, is accepted by the
// sandbox's dry run, by a validating Prism mock of the official spec, and proposed by the broker
// or refused with a reason CONTRACT.md lists. 0 disagreements.
import { registerWalk } from './walk-runner.mjs';

registerWalk({ prism: true });
