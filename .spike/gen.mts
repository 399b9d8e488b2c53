import { generateContracts } from '/work/main/src/contracts/generate.ts';
import { defaultConfig } from '/work/main/src/config/index.ts';
const t = Date.now();
const p = await generateContracts({ config: defaultConfig(), outDir: '/tmp/spike/out' });
console.log(p, Date.now() - t);
