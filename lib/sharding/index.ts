/**
 * Sharding: controllers scaled out across replicas — a consistent-hash ring over the live members (one
 * Lease per replica), objects labelled with their shard, each replica watching only its own.
 *
 * @module reconcilekit/sharding
 */
export { HashRing, ringHash, DEFAULT_VIRTUAL_NODES, type HashRingOptions } from './hash-ring.js';
