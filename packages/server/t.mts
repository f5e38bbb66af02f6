import { WIRE_COMPONENTS, WIRE_ROUTE_LIST } from '@authority-runtime/sdk/wire';
import { buildOpenApiDocument } from './src/http/openapi.js';

const d = buildOpenApiDocument({ version: '1', routes: WIRE_ROUTE_LIST, components: WIRE_COMPONENTS });
console.log(JSON.stringify(d).length);
