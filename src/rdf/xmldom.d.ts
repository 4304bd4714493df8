/**
 * The few types of @xmldom/xmldom 0.8 that xml_literal.ts uses. Its own index.d.ts pulls in
 * TypeScript's whole DOM library, whose stream types clash with Deno's.
 */
export interface XmlNode {
  nodeType: number;
  nodeName: string;
  childNodes: { length: number; [index: number]: XmlNode };
}

export interface XmlDocument {
  documentElement: XmlNode | null;
}

export class DOMParser {
  constructor(
    options?: { locator?: object; errorHandler?: (level: string, message: string) => void },
  );
  parseFromString(source: string, mimeType: string): XmlDocument;
}
