// The few Node.js functions the kit uses, declared here so that the kit needs no @types/node.
declare module "fs" {
  export function readSync(fd: number, buffer: Uint8Array, offset: number, length: number, position: null): number;
  export function writeSync(fd: number, data: string): number;
  export function openSync(path: string, flags: string, mode?: number): number;
  export function fsyncSync(fd: number): void;
  export function readFileSync(path: string): Uint8Array;
  export function existsSync(path: string): boolean;
  export function truncateSync(path: string, length: number): void;
  export function lstatSync(path: string): { isFile(): boolean; isDirectory(): boolean };
}
declare module "crypto" {
  export function createHmac(algorithm: string, key: Uint8Array): { update(data: Uint8Array): { digest(encoding: "hex"): string } };
}
declare class TextDecoder { decode(input: Uint8Array): string; }
declare class TextEncoder { encode(input: string): Uint8Array; }
declare const process: { exit(code: number): never; argv: string[] };
