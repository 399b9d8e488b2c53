import { generateContracts } from '../src/contracts/generate.ts';
import { defaultConfig } from '../src/config/index.ts';
console.log(await generateContracts({ config: defaultConfig(), outDir: 'contracts' }));
