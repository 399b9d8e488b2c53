import pkg from '../package.json' with { type: 'json' };

/** aggmock's version, from package.json; sent as `User-Agent: aggmock/<version>`. */
export const VERSION: string = pkg.version;
