import { describeFaults, FAULT_HALVES } from './faults.ts';

describeFaults('state', FAULT_HALVES[1] ?? []);
