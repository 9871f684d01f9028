// The static list of modules. No directory scanning: it must work inside a bundle.
import type { ModuleManifest } from '../kernel/module.js';
import core from './core/module.js';
import auth from './auth/module.js';
import tables from './tables/module.js';
import forms from './forms/module.js';
import field from './field/module.js';

export const MODULES: readonly ModuleManifest[] = [core, auth, tables, forms, field];
