/**
 * Schema-first kinds: define a kind once (names, versions, TypeBox schemas) and get its TypeScript types,
 * its CustomResourceDefinition, runtime validation and a typed client.
 *
 * @module reconcilekit/kinds
 */
export {
  defineKind,
  isKind,
  isKindVersion,
  type Kind,
  type KindVersion,
  type ObjectOf,
  type SpecOf,
  type StatusOf,
  type NewObjectOf,
  type ApplyConfigurationOf,
} from './define-kind.js';
export type { KindOptions, KindVersionOptions } from './kind-options.js';
export type {
  KindObject,
  NewKindObject,
  ApplyConfiguration,
  ApplyMetadata,
  DeepPartial,
  TypedResource,
} from '../kube/kind-object.js';
export type {
  CelRule,
  CrdSchema,
  CrdVersion,
  CustomResourceDefinition,
  PrinterColumn,
  ScaleSubresource,
} from './crd-types.js';
export { KubeType, type KubeCondition } from './kube-type.js';
export { KindDefinitionError, isKindDefinitionError } from './kind-definition-error.js';
export {
  KindValidationError,
  isKindValidationError,
  type KindAdmission,
  type KindFieldCause,
} from './kind-validation.js';
export {
  KindClient,
  kindClient,
  type KindStatusClient,
  type KindWatchEvent,
  type NamespaceOption,
} from '../kube/kind-client.js';
export type { RbacDeclaration, RbacUse, RbacVerb } from './rbac-declaration.js';
export { toStructuralSchema, type SchemaProblem } from './structural-schema.js';
export { Type, type Static, type TSchema } from 'typebox';
