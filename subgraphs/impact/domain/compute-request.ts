import type { JsonObject } from '../../../kernel/json.js';

/** The versions of the three models an Integrated LCA involves. */
export interface ModelVersions {
  productSystem: string;
  lciDataset: string;
  integratedLca: string;
}

/**
 * A compute request, valid by its types (the graph's input types guarantee them; the REST facade
 * answers FastAPI's 422s before it calls the graph). The objects' shapes belong to the model
 * versions named, so they are not checked here.
 */
export interface ComputeRequest {
  modelVersions: ModelVersions;
  productSystem: JsonObject;
  lciDatasets: JsonObject[];
  assessmentContext: JsonObject;
}
