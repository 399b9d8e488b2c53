import { describeFaults } from './faults.ts';

describeFaults('players');
