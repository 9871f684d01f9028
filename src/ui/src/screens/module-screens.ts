// Modules whose records are set up through their own screen rather than the generic record
// list: the installer's forms (in farm words, no JSON) for what a box is commissioned with.
import type { ComponentType } from 'preact';
import { SirenRelay } from './SirenRelay';
import { Notifications } from './Notifications';
import { PoultryAdapters } from './Poultry';

export const MODULE_SCREENS: Record<string, ComponentType> = {
  'alarm-relay': SirenRelay,
  notifications: Notifications,
};

/** Resources with a screen of their own instead of the generic record list (in a module's tab and at #/r/<path>). */
export const RESOURCE_SCREENS: Record<string, ComponentType> = {
  'poultry-adapters': PoultryAdapters,
};
