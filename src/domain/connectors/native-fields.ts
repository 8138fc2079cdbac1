/**
 * A table of a data store as the native fields of a source: what POST /api/sources accepts in
 * `fields`, so that a source can be built from a real table in two calls. Names are made valid
 * and unique (`Order Date` becomes `Order_Date`, a second one `Order_Date_2`); each field keeps
 * the column's own name and type in its origin, and the table it comes from as its dataEntityId.
 */
import { dataTypeOfNativeType, firstFreeName, labelFromName, nameFromText, type FieldDataType } from "../source-fields";

export interface NativeFieldDefinition {
  name: string;
  label: string;
  dataType: FieldDataType;
  origin: { type: "NATIVE"; nativeOrigin: { originalName: string; originalType: string; dataEntityId: string } };
}

const CONTROL_CHARACTERS = /[\u0000-\u001F\u007F-\u009F]/;

/** `reserved`: names the source already holds (the Volume metric every new source gets). */
export function nativeFieldsOf(
  schema: string,
  table: string,
  columns: readonly { name: string; nativeType: string }[],
  reserved: readonly string[],
): NativeFieldDefinition[] {
  const taken = new Set(reserved);
  return columns.map((column) => {
    const name = firstFreeName(nameFromText(column.name), taken);
    taken.add(name);
    return {
      name,
      // A label is one line of text: a column name that is not gets one made from the field's name.
      label: CONTROL_CHARACTERS.test(column.name) || column.name.length > 255 ? labelFromName(name) : column.name,
      dataType: dataTypeOfNativeType(column.nativeType),
      origin: { type: "NATIVE", nativeOrigin: { originalName: column.name, originalType: column.nativeType, dataEntityId: `${schema}.${table}` } },
    };
  });
}
