/** The part of s3rver 3.x (no published types) that the storage tests use. */
declare module 's3rver' {
  import type { AddressInfo } from 'node:net';

  type Options = { address?: string; port?: number; directory?: string; silent?: boolean; resetOnClose?: boolean };

  export default class S3rver {
    constructor(options?: Options);
    run(): Promise<AddressInfo>;
    close(): Promise<void>;
  }
}
