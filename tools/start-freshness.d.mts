/** Types of start-freshness.mjs (plain JavaScript, so `npm start` runs it with plain node). */
export declare const stampOf: (root: string) => string;
export declare const entryOf: (root: string) => string;
export declare function needsBuild(root: string): boolean;
