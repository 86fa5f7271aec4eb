import { refuseInUnitProject } from './test-project';

refuseInUnitProject('moto\'s server');

export type { Moto } from '../../tools/moto/server';
export { startMoto } from '../../tools/moto/server';
