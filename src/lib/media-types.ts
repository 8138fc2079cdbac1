/** The representation's media type: every JSON body in and out (application/json is accepted too). */
export const VENDOR_JSON = "application/vnd.service.v3+json";
