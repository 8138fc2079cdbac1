import { createRouter } from "../../lib/create-router";
import * as handlers from "./json-datasets.handlers";
import * as routes from "./json-datasets.routes";

/** /api/json-datasets: the account's JSON datasets, stored byte for byte, up to MAX_DATASET_BYTES each. */
export const jsonDatasetsRouter = createRouter()
  .openapi(routes.list, handlers.list)
  .openapi(routes.create, handlers.create)
  .openapi(routes.getOne, handlers.getOne)
  .openapi(routes.update, handlers.update)
  .openapi(routes.patch, handlers.patch)
  .openapi(routes.remove, handlers.remove);
