/** Where the server runs: the full API (`cloud`) or a development server's surface (`local`). */
export type Mode = 'cloud' | 'local';
