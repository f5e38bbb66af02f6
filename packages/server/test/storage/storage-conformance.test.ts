import { ENGINES } from '../helpers/storage.js';
import { storageConformance } from './conformance/suite.js';

for (const engine of ENGINES) storageConformance(engine);
