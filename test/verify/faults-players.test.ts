import { describeFaults, FAULT_HALVES } from './faults.ts';

describeFaults('players', FAULT_HALVES[0] ?? []);
