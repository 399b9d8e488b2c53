import { describeFaults, faultsFor } from './faults.ts';

describeFaults('players', faultsFor('players', 0));
