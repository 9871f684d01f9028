// Modules whose records are set up through their own screen rather than the generic record
// list: the installer's forms (in farm words, no JSON) for what a box is commissioned with; the
// fleet's releases and rollouts on the master, and the box's own software update.
import type { ComponentType } from 'preact';
import { SirenRelay } from './SirenRelay';
import { Notifications } from './Notifications';
import { PoultryAdapters } from './Poultry';
import { FleetReleases } from './FleetReleases';
import { SoftwareUpdates } from './SoftwareUpdates';

export const MODULE_SCREENS: Record<string, ComponentType> = {
  'alarm-relay': SirenRelay,
  notifications: Notifications,
  releases: FleetReleases,
  updates: SoftwareUpdates,
};

/** Resources with a screen of their own instead of the generic record list (in a module's tab and at #/r/<path>). */
export const RESOURCE_SCREENS: Record<string, ComponentType> = {
  'poultry-adapters': PoultryAdapters,
  releases: FleetReleases,
  'release-rollouts': FleetReleases,
};
