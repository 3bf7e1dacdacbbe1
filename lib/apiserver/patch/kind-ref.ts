/** Group, version and kind of an object; group '' is the core group. */
export interface KindRef {
  group: string;
  version: string;
  kind: string;
}
