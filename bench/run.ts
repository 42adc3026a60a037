// make bench: runs every benchmark under bench/ and records the results in bench/results/.
// Today: the HTTP foundation (what the contract layer costs per request). Later issues add theirs here.
import { runHttpFoundation } from './http-foundation';

await runHttpFoundation();
