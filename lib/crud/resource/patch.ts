/**
 * Up to three changes computed by `newUpdatePatch`/`newDeletePatch`: create, delete and update.
 *
 * A part counts once its setter was called, whatever the value: `setUpdateChange(null)` still makes the
 * CRUD resource call `applyUpdateChange(ctx, obj, null)`. Parts never set are not applied. Parts are
 * applied in the order create → delete → update.
 * @category CRUD resources
 */
export class Patch<Change = unknown> {
  private readonly parts = new Map<PatchPart, Change>();

  /** Stores the create part. */
  setCreateChange(change: Change): this {
    this.parts.set('create', change);
    return this;
  }

  /** Stores the delete part. */
  setDeleteChange(change: Change): this {
    this.parts.set('delete', change);
    return this;
  }

  /** Stores the update part. */
  setUpdateChange(change: Change): this {
    this.parts.set('update', change);
    return this;
  }

  /** Whether the part's setter was called. Read by the engine. */
  has(part: PatchPart): boolean {
    return this.parts.has(part);
  }

  /** The value stored for the part (`undefined` when not set). Read by the engine. */
  get(part: PatchPart): Change | undefined {
    return this.parts.get(part);
  }
}

/**
 * The three parts of a {@link Patch}, in apply order.
 * @category CRUD resources
 */
export const PATCH_PARTS = ['create', 'delete', 'update'] as const;

/**
 * One of {@link PATCH_PARTS}.
 * @category CRUD resources
 */
export type PatchPart = (typeof PATCH_PARTS)[number];
